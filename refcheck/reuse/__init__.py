"""One analysis for identical generic instantiations: instance keys, class keys, renaming."""
