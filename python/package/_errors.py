"""The exceptions mlfkit raises: one class per kind of failure.

Every error carries the same message the `mlf` command line prints. Catch
`mlfkit.Error` for all of them; the classes that correspond to a built-in
exception also derive from it (InvalidArgumentError is a ValueError, ...).
"""


class Error(Exception):
    """Base class of every error mlfkit raises."""


class InvalidArgumentError(Error, ValueError):
    """Malformed input: a bad archive, model, array or argument."""


class NotFoundError(Error, LookupError):
    """A file, member, module or tensor that does not exist."""


class AlreadyExistsError(Error):
    """Something that would be overwritten (e.g. a key file)."""


class FailedPreconditionError(Error):
    """Well-formed input that cannot be used here (e.g. a format version)."""


class OutOfRangeError(Error, IndexError):
    """A size, count or index beyond its bound."""


class DataLossError(Error):
    """A damaged archive: digest mismatch, truncated or corrupt data."""


class SignatureError(Error):
    """A signature that is missing, wrong, or made with another key."""


class PermissionDeniedError(Error):
    """Unsafe content (path traversal, links) or a key file others can read."""


class UnimplementedError(Error, NotImplementedError):
    """A feature this build of mlfkit does not support (e.g. an operator)."""


class IOError(Error, OSError):  # noqa: A001 - mlfkit.IOError, not the builtin alias
    """The operating system refused a read or a write."""


class InternalError(Error, RuntimeError):
    """A bug in mlfkit, or a library failing unexpectedly."""
