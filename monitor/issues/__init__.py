"""Issues: the clustering job (failing spans -> named, tracked issues -> promoted examples), failure texts,
and the issue reads people look at."""
