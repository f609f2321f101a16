"""What is estimated on the unlabeled bitext: IBM Models 1/2 (:mod:`~alignment.stats.ibm`)
and their link posteriors (:mod:`~alignment.stats.posteriors`),
the HMM (:mod:`~alignment.stats.hmm`), Dice (:mod:`~alignment.stats.dice`), their bundle
(:mod:`~alignment.stats.statistics`), the counts behind the fertility and pair features
(:mod:`~alignment.stats.interactions`), the E-steps on an executor
(:mod:`~alignment.stats.shards`) and the whole statistics on a Dask cluster with the
tables sharded by source word (:mod:`~alignment.stats.distributed`)."""
