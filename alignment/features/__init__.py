"""The features of the aligner: of an edge (:mod:`~alignment.features.edges`), of fertility
and of pairs of edges (:mod:`~alignment.features.interactions`), other aligners' links
(:mod:`~alignment.features.links` for cached runs, :mod:`~alignment.features.external` for
link files) and the numba batch featurizer (:mod:`~alignment.features.kernel`)."""
