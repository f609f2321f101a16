"""Evaluation: AER and the paired bootstrap (:mod:`~alignment.evaluate.aer`), the Hansards
protocol of Table 3.1 (:mod:`~alignment.evaluate.protocol`), its Markdown table
(:mod:`~alignment.evaluate.table`) and alignment grids (:mod:`~alignment.evaluate.plot`)."""
