// Placeholder: the Signalbox module is being built.
