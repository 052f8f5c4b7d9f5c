"""Which findings are shown: rule selection, suppression comments, baselines."""
