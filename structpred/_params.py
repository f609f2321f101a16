"""scikit-learn style parameter handling shared by every estimator of the package."""

from __future__ import annotations

import inspect

__all__ = ["ParamsMixin"]


class ParamsMixin:
    """``get_params`` / ``set_params`` read off the ``__init__`` signature, as in
    scikit-learn's ``BaseEstimator``: hyperparameters are exactly the keyword
    arguments of ``__init__``, stored under the same names."""

    @classmethod
    def _param_names(cls):
        sig = inspect.signature(cls.__init__)
        return sorted(p.name for p in sig.parameters.values()
                      if p.name != "self" and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD))

    def get_params(self, deep=True):
        return {k: getattr(self, k) for k in self._param_names()}

    def set_params(self, **params):
        valid = set(self._param_names())
        for k, v in params.items():
            if k not in valid:
                raise ValueError(f"unknown parameter {k!r} for {type(self).__name__}")
            setattr(self, k, v)
        return self

    def __repr__(self):
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items())
        return f"{type(self).__name__}({args})"
