"""A learned faithfulness tier: a small model fitted here, on data with stated provenance.

    from sumwatch.monitor.rubrics.learned.model import FaithfulnessModel
    FaithfulnessModel().score(source, summary).supported     # P(the source carries the summary)

features.py reads how well each summary sentence is carried by the source (words, n-grams, the best-covering
sentence, embedding cosine, new numbers, names and negations); model.py turns those into probabilities with the
weights in model.json; data.py and synthetic.py make the training rows and held-out splits; train.py fits the
weights and chooses the cuts, and evaluate.py measures them (MODEL_CARD.md holds the figures).
"""
