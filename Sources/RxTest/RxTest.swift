// Placeholder: the RxTest module is being built.
