"""The one error type for bad input. Its message always names the file and the field."""


class InputError(Exception):
    """A file the generator was given is missing, corrupt or does not fit the others."""

    def __init__(self, path, field, problem):
        self.path, self.field, self.problem = str(path), field, problem
        where = f"{self.path}: {field}" if field else self.path
        super().__init__(f"{where}: {problem}")


class SettingError(ValueError):
    """An impossible setting (k too large for the context, an unknown draft, …); the message says which."""


class OutputError(InputError):
    """A generated file could not be written (a full disk, no permission); the previous one is left as it was."""

    def __init__(self, path, error):
        reason = error.strerror or str(error)
        super().__init__(path, None, f"cannot write ({reason}); the previous file is left as it was: "
                                     "free some space (or fix the permissions) and run the command again")
