"""scikit-learn's estimator checks for the topic models, run in two processes.

:func:`estimator_checks` is ``parametrize_with_checks`` without the array-API checks in the
main test process: those need ``SCIPY_ARRAY_API=1`` set before scipy is first imported,
which would change scipy for every other test, so without it scikit-learn skips them.
``test_array_api_dispatch.py`` runs exactly those checks in a process of their own with
the variable set (``STRUCTPRED_ARRAY_API_CHECKS=1`` keeps them in the selection there).
"""

import os

import pytest
from sklearn.utils.estimator_checks import parametrize_with_checks

IN_ARRAY_API_PROCESS = os.environ.get("STRUCTPRED_ARRAY_API_CHECKS") == "1"


def _is_array_api_check(check):
    return "array_api" in getattr(getattr(check, "func", check), "__name__", "")


def estimator_checks(estimators):
    """A ``pytest.mark.parametrize`` of ``(estimator, check)`` as ``parametrize_with_checks``
    gives, holding the array-API checks only in the process that can run them."""
    mark = parametrize_with_checks(estimators)
    names, pairs = mark.args
    keep = [p for p in pairs if _is_array_api_check(p[1]) == IN_ARRAY_API_PROCESS]
    return pytest.mark.parametrize(names, keep, **mark.kwargs)
