"""The bitext: vocabularies and encodings (:mod:`~alignment.data.corpus`), the parallel-text,
Pharaoh and NAACL readers and writers (:mod:`~alignment.data.formats`) and the Hansards
data of thesis ch. 3 (:mod:`~alignment.data.hansards`)."""
