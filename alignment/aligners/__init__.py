"""Other aligners: eflomal and fast_align as cached runs (:mod:`~alignment.aligners.runs`),
their links read from files (:mod:`~alignment.aligners.linkfiles`), symmetrisation
(:mod:`~alignment.aligners.symmetrize`) and our unsupervised aligner
(:mod:`~alignment.aligners.unsupervised`)."""
