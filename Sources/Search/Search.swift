// Placeholder: the Search module is being built.
