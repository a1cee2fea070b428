"""A learned faithfulness tier: a small cross-encoder trained here, on data with stated provenance.

    from sumwatch.monitor.rubrics.learned.model import shared_model
    shared_model().score(source, summary).supported      # P(the least supported summary sentence is supported)

premise.py picks the source passage a sentence is read against; network.py is the model over the packaged
all-MiniLM-L6-v2 base; data.py and synthetic.py make the training rows and held-out splits; train.py and
evaluate.py train it on CPU and measure it (MODEL_CARD.md holds the figures).
"""
