"""The one exception type for errors a user can cause.

Its message is written for the user: what went wrong and what to do. Pages show it with
``st.error``; the command line prints ``error: ...`` and exits with status 2.
"""


class UserError(Exception):
    """A problem with the user's input or setup, explained in plain words."""
