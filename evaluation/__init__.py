"""Detection quality: ``neardup eval``, the baselines, the labelled datasets (extra ``[eval]``)."""
