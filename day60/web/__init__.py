"""``day60 serve``: a local web checklist several people stamp at once.

One more front end over the library, like ``live``: ``app`` (the route table), ``site`` (the
server's state the views share), ``pages`` and ``api`` (the views, for people and for scripts),
``shown`` (what a page shows, as data), ``streams`` (the event stream), ``guard`` (what every
request passes), ``room`` (the journal as the pages see it, and who has joined), ``press`` (one
press turned into an append through ``journal.append``). It holds no rules of its own;
``templates`` and ``static`` (htmx, vendored, and the app's own script and style) ship inside
the package.
"""

from day60.web.app import create_app

__all__ = ["create_app"]
