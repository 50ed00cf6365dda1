"""The error of a value that does not convert to its annotation (kept apart so both converters share it)."""


class ConversionError(ValueError):
    pass
