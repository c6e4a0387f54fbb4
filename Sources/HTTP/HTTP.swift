// Placeholder: the HTTP module is being built.
