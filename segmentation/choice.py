"""The choices of :class:`segmentation.model.MRFSegmenter` on validation: the search over
candidate settings (in forked processes), the guard against unary-only (eqs. 4-5 of the
class docstring) and the choice by cross-validation when the validation set is small
(eq. 6).  A mixin: the estimator's own methods train one candidate
(``_candidate``, ``_train_candidate``) and prepare the graphs (``_prepare``)."""

from __future__ import annotations

import numpy as np

from structpred import check_n_jobs, estimator_seed

from ._image_kind import training_kind
from .examples import (AUTO_CLASS_WEIGHTS, AUTO_ETA_SCALES, _candidates, _GraphFiles, _iou,
                       _iou_score, _Moments, _pad, _Prepared)

__all__ = ["CandidateSearch"]


class CandidateSearch:
    """The validation-time choices of the segmenter (see the module docstring)."""

    def _guarded(self):
        return bool(self.use_edges) and bool(self.guard)

    # ------------------------------------------------- choice on a validation set
    def _grid(self, valid, use_edges=True):
        cws = _candidates(self.class_weight, AUTO_CLASS_WEIGHTS, "class_weight")
        etas = _candidates(self.eta_scale, AUTO_ETA_SCALES, "eta_scale")
        if self.learner not in ("dual-extragradient", "projected-gradient") or self.learning_rate:
            etas = etas[:1]  # the step scale only sets eta = eta_scale / ||F||
        # without validation there is nothing to choose on: the first candidates
        return [(cw, e) for cw in cws for e in etas] if valid is not None else [(cws[0], etas[0])]

    def _search(self, prep, valid, ns, track_graphs, log, use_edges, what=""):
        """Train every (class weight, step) candidate; the best on validation, trained on
        all of ``prep`` (after a search on ``selection_size`` graphs when there are more)."""
        return self._searches(prep, valid, ns, log, [(use_edges, what, track_graphs)])[0]

    def _searches(self, prep, valid, ns, log, kinds):
        """:meth:`_search` for several kinds of model at once, ``kinds`` a list of
        ``(use_edges, tag, track_graphs)``: every grid candidate of every kind first, then
        the winners on all of ``prep``, each round in ``n_jobs`` forked processes."""
        grid_of = {k: self._grid(valid, kinds[k][0]) for k in range(len(kinds))}
        sub = prep
        if max(len(g) for g in grid_of.values()) > 1 and valid is not None \
                and self.selection_size and prep.n_train > int(self.selection_size):
            sub = prep.subset(int(self.selection_size))
        specs = []
        for k, (use_edges, what, track) in enumerate(kinds):
            tag = what + ("" if sub is prep else f" (on {sub.n_train} training graphs)")
            specs += [(k, dict(prep=sub, cw=cw, eta_scale=e, tag=tag, use_edges=use_edges,
                               track_graphs=track)) for cw, e in grid_of[k]]
        done = self._run_candidates(specs, ns, valid, log)
        best = {}
        rows = {k: [] for k in range(len(kinds))}
        for (k, _), (row, res, hist) in zip(specs, done):
            rows[k].append(row)
            if k not in best or self._score_of(res) > best[k][0] + 1e-12:
                best[k] = (self._score_of(res), row, res, hist, sub)
        if sub is not prep:  # the winners, trained on everything
            specs = [(k, dict(prep=prep, cw=best[k][1]["class_weight"],
                              eta_scale=best[k][1]["eta_scale"], use_edges=use_edges,
                              tag=what + f" (on all {prep.n_train})", track_graphs=track))
                     for k, (use_edges, what, track) in enumerate(kinds)]
            for (k, _), (row, res, hist) in zip(specs, self._run_candidates(specs, ns, valid, log)):
                row["final"] = True
                rows[k].append(row)
                best[k] = (self._score_of(res), row, res, hist, prep)
        return [(best[k], rows[k]) for k in range(len(kinds))]

    def _jobs(self, n):
        """Processes for ``n`` candidates: ``n_jobs`` (joblib's convention: -1 the CPUs
        this process may use; None 1, as scikit-learn reads it)."""
        return max(1, min(int(check_n_jobs(self.n_jobs)), int(n)))

    def _run_candidates(self, specs, ns, valid, log):
        """``[(row, res, hist)]`` of :meth:`_candidate` for every ``(kind, kwargs)`` of
        ``specs``, in order; in forked processes (:func:`structpred.selection.fit_candidates`)
        when :meth:`_jobs` allows more than one.  The results are the same either way."""
        from structpred.selection import fit_candidates

        jobs = self._jobs(len(specs))

        def fit(holder):
            kw = dict(specs[holder["i"]][1])
            # a forked candidate's lines come back with it and are logged here, in order
            lines = holder["lines"] = []
            holder["out"] = self._candidate(kw.pop("prep"), kw.pop("cw"), kw.pop("eta_scale"), ns,
                                            valid, kw.pop("track_graphs"),
                                            lines.append if jobs > 1 else log, **kw)

        if jobs > 1:
            _stop_tqdm_monitor()
        if jobs > 1 and self.learning_rate is None and \
                self.learner in ("dual-extragradient", "projected-gradient"):
            for _, kw in specs:   # ||F|| of each training set once, here, for the forked ones
                self._lipschitz(kw["prep"], kw["use_edges"], kw["cw"])
        ranked = fit_candidates(lambda i: {"i": i}, range(len(specs)), fit, jobs=jobs,
                                score_of=lambda h: 0.0)
        out = {c.value: c.model for c in ranked}
        for i in range(len(specs)):
            for line in out[i]["lines"]:
                log(line)
        return [out[i]["out"] for i in range(len(specs))]

    def _fit_on_validation(self, prep, valid, ns, track_graphs, log):
        """The MRF search and, when guarded, the unary-only search and the guard (sec. 2 of
        the class docstring) on the validation set ``valid`` (or no choice without one)."""
        guarded = self._guarded() and valid is not None
        kinds = [(bool(self.use_edges), "", track_graphs)]
        if guarded:
            kinds.append((False, " [unary-only]", None))
        found = self._searches(prep, valid, ns, log, kinds)
        (score, row, res, hist, _), rows = found[0]
        out = dict(score=score, row=row, res=res, hist=hist, prep=prep, w=res.w, rows=rows,
                   validated=valid is not None, guard=None)
        if not guarded:
            return out
        (_, urow, ures, uhist, _), urows = found[1]
        for r in urows:
            r["unary"] = True
        rows.extend(urows)
        cands = self._guard_candidates(res.w, _pad(ures.w, prep.n_edge), prep.n_node)
        self._use(prep)
        stats = {k: self._image_stats(w, valid) for k, w in cands.items()}
        value, guard = self._guard(stats, {"unary": ures.best_iter, "mrf": res.best_iter}, log,
                                   items="images" if self.kind_ == "image" else "scans")
        if value == "unary":
            out.update(row=dict(urow, edges="unary"), res=ures, hist=uhist, w=cands["unary"])
        else:
            out.update(row=dict(row, edges=value), w=cands[value])
        out["score"] = _iou(stats[value].sum(0))
        if self.validation_metric == "iou":
            # the summary's figure is the guard's (the search's monitor scored the unscaled
            # MRF, and the guard may have scaled its edges)
            out["row"]["valid_score"] = out["score"]
        out.update(guard=guard, stats=stats, cands=cands)
        return out

    def _guard_candidates(self, w_mrf, w_unary, dn):
        """``{"unary": w_u, "mrf": w, "mrf x s": w with edge weights times s}``, in the
        order in which ties are broken (unary-only, the MRF, then the factors nearest 1)."""
        cands = {"unary": w_unary, "mrf": np.asarray(w_mrf)}
        for s in sorted(self.edge_factors or (), key=lambda s: (abs(np.log(float(s))), s)):
            w = np.array(w_mrf, copy=True)
            w[dn:] *= float(s)
            cands[f"mrf x {float(s):g}"] = w
        return cands

    def _guard(self, stats, best_iters, log, items="images"):
        """Keep the MRF only when it beats unary-only in ``1 - guard_alpha`` of the paired
        bootstraps of the per-item (intersection, union) statistics (eq. 7)."""
        from structpred.selection import Candidate, describe_choice as describe, prefer_default

        order = list(stats)                                  # unary first: ties keep it
        ranked = sorted((Candidate(k, k, _iou(stats[k].sum(0)),
                                   best_iters.get(k.split(" ")[0]), 0.0) for k in order),
                        key=lambda c: (-c.score, order.index(c.value)))
        kept, p = prefer_default(ranked, "unary", lambda k: stats[k], _iou_score,
                                 alpha=float(self.guard_alpha), random_state=estimator_seed(self))
        line = describe("edges", ranked, kept, p, "unary", metric="IoU", items=items)
        return kept.value, dict(kept=kept.value, p_not_better=p, line=line,
                                scores={c.value: c.score for c in ranked},
                                n_items=int(len(stats["unary"])))

    def _refit(self, out, merged, n_valid, ns, log):
        """The candidate kept on held-out validation, trained again on all the training
        items (``merged``) for eq. 7's iterations, its edge factor applied."""
        row = out["row"]
        value = row.get("edges", "mrf" if self.use_edges else "unary")
        mrf = value != "unary"
        t_final = int(out["res"].best_iter or 0) + 1
        what = "images" if self.kind_ == "image" else "scans"
        frow, fres, _ = self._candidate(
            merged, row["class_weight"], row["eta_scale"], ns, None, None, log,
            use_edges=mrf, n_iter=t_final)
        log(f"  trained again on all {merged.n_train} {what} ({n_valid} of them the "
            f"validation ones) for {t_final} iterations (refit)")
        frow.update(final=True, refit=True, edges=value, valid_score=row.get("valid_score"))
        w = np.array(fres.w, copy=True) if mrf else _pad(fres.w, merged.n_edge)
        if value.startswith("mrf x"):
            w[merged.n_node:] *= float(value.split(" ")[-1])
        cands = (self._guard_candidates(fres.w, np.zeros_like(fres.w), merged.n_node)
                 if mrf else {"unary": w})
        if mrf:
            cands.pop("unary")
        merged.n_valid = n_valid
        return dict(out, row=dict(row, refit=True, refit_iterations=t_final,
                                  n_train=merged.n_train),
                    res=fres, prep=merged, w=w, rows=out["rows"] + [frow], cands=cands)

    # ---------------------------------------------- choice by cross-validation
    def _merged(self, prep, valid, held):
        """``prep`` with the validation graphs added back (statistics recomputed)."""
        graphs = list(prep.kept) + list(valid) if not prep.paths else None
        paths = list(prep.paths) + list(valid.paths) if prep.paths else []
        merged = self._restat(prep, graphs or [], paths)
        merged.n_valid = None
        return merged

    def _restat(self, prep, kept, paths):
        """A :class:`_Prepared` over these graphs, statistics recomputed."""
        acc = _Moments()
        for g in (kept if not paths else _GraphFiles(paths)):
            acc.add(g)
        mean, scale = acc.standardisation()
        fg, tot, nodes = acc.fg, acc.tot, acc.nodes
        n = len(paths) if paths else len(kept)
        out = _Prepared(list(kept) if not paths else [], list(paths), mean, scale, fg / tot,
                        tot / max(nodes, 1), mean.size, prep.n_edge, n, prep.node_names,
                        prep.edge_names)
        out.lipschitz, out.spacing = {}, acc.spacing()
        out.grey = training_kind(acc.greys)
        return out

    def _fit_cv(self, prep, ns, log):
        """Few validation images: the guarded choice by ``cv_folds``-fold cross-validation
        over the training graphs (eq. 6), then the chosen model trained on all of them."""
        from collections import Counter

        n, k = prep.n_train, min(int(self.cv_folds), prep.n_train)
        guarded = self._guarded()
        fold = np.arange(n) % k
        items = prep.paths if prep.paths else prep.kept
        log(f"  {n} training {'images' if self.kind_ == 'image' else 'scans'} and too few for "
            f"validation: the choice by {k}-fold cross-validation")
        stats, rows, picks, iters = {}, [], {"mrf": [], "unary": []}, {"mrf": [], "unary": []}
        for f in range(k):
            tr = [items[i] for i in range(n) if fold[i] != f]
            va = [items[i] for i in range(n) if fold[i] == f]
            sub = self._restat(prep, [] if prep.paths else tr, tr if prep.paths else [])
            valid = _GraphFiles(va) if prep.paths else va
            tag = f" [fold {f + 1}/{k}]"
            r1 = []
            kinds = ([(True, tag, None)] if guarded else []) + [(False, tag + " [unary-only]", None)]
            found = self._searches(sub, valid, ns, log, kinds)
            if guarded:
                (_, row, res, _, _), r1 = found[0]
            (_, urow, ures, _, _), r2 = found[-1]
            if not guarded:
                row, res = urow, ures
            for r in r1 + r2:
                r["cv_fold"] = f
            for r in r2:
                r["unary"] = True
            rows += r1 + r2
            picks["mrf"].append((row["class_weight"], row["eta_scale"]))
            picks["unary"].append((urow["class_weight"], urow["eta_scale"]))
            iters["mrf"].append(res.best_iter or 0)
            iters["unary"].append(ures.best_iter or 0)
            cands = self._guard_candidates(res.w, _pad(ures.w, sub.n_edge), sub.n_node) \
                if guarded else {"unary": ures.w}
            self._use(sub)
            for key, w in cands.items():
                stats.setdefault(key, []).append(self._image_stats(w, valid))
        stats = {key: np.concatenate(v) for key, v in stats.items()}
        what = "images" if self.kind_ == "image" else "scans"
        if guarded:
            value, guard = self._guard(stats, {}, log, items=f"{what} (cross-validated)")
        else:
            score = _iou(stats["unary"].sum(0))
            value, guard = "unary", dict(kept="unary", p_not_better=None, scores={"unary": score},
                                         n_items=n, line=f"unary-only: cross-validated IoU "
                                                         f"{100 * score:.2f}% over {n} {what}")
        which = "unary" if value == "unary" else "mrf"
        cw, eta = Counter(picks[which]).most_common(1)[0][0]
        t_final = int(np.median(iters[which])) + 1
        row, res, hist = self._candidate(prep, cw, eta, ns, None, None, log,
                                         tag=f" (final, on all {n}, {t_final} iterations)",
                                         use_edges=which == "mrf", n_iter=t_final)
        row.update(final=True, edges=value, cv_folds=k)
        rows.append(row)
        w = _pad(res.w, prep.n_edge) if which == "unary" else np.array(res.w, copy=True)
        if value.startswith("mrf x"):
            w[prep.n_node:] *= float(value.split(" ")[-1])
        row["valid_score"] = guard["scores"][value]
        final = {"unary": w} if which == "unary" else self._guard_candidates(
            res.w, np.zeros_like(res.w), prep.n_node)
        final.pop("unary" if which == "mrf" else "", None)
        return dict(score=guard["scores"][value], row=row, res=res, hist=hist, prep=prep, w=w,
                    rows=rows, validated=True, guard=dict(guard, cv_folds=k), stats=stats,
                    cands=final)


def _stop_tqdm_monitor():
    """End tqdm's monitor thread (progress bars on a terminal start one) and start no other:
    :func:`structpred.selection.fit_candidates` forks only while no other thread runs."""
    import threading

    from tqdm import tqdm
    from tqdm._monitor import TMonitor

    tqdm.monitor_interval = 0          # inherited by tqdm.auto's class
    for t in threading.enumerate():
        if isinstance(t, TMonitor):
            t.exit()
