"""The features of the aligner: of an edge (:mod:`~alignment.features.edges`), of fertility
and of pairs of edges (:mod:`~alignment.features.interactions`), other aligners' links
(:mod:`~alignment.features.links`: cached runs and link files), and the numba kernels that
define every edge and aligner feature once (:mod:`~alignment.features.kernel`)."""
