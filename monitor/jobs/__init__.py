"""Jobs: the scheduler that runs the sampler and the clustering job."""
