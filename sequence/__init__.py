"""Sequence labelling (chunking, POS tagging) on the chain marginal polytope."""
