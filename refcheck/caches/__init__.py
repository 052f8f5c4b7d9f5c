"""Results on disk: per unit and per function, valid only while their inputs are unchanged."""
