"""Other aligners: eflomal and fast_align as cached runs (:mod:`~alignment.aligners.runs`),
their links read from files (:mod:`~alignment.aligners.linkfiles`), symmetrisation
(:mod:`~alignment.aligners.symmetrize`), our unsupervised aligner
(:mod:`~alignment.aligners.unsupervised`) and our seeded Bayesian aligner
(:mod:`~alignment.aligners.bayes`), cached as a run like eflomal's
(:mod:`~alignment.aligners.bayes_run`)."""
