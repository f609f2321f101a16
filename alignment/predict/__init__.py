"""Prediction: many sentence pairs at once with one numba kernel
(:mod:`~alignment.predict.batch`) and in parallel, streaming in input order
(:mod:`~alignment.predict.parallel`)."""
