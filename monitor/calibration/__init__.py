"""Calibration: corpora management (import, export, starter corpora, labelling) and the kappa gate on judges."""
