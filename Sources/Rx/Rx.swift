// Placeholder: the Rx module is being built.
