"""Evidence: where every output came from, reports that carry their inputs, and checking them."""

import warnings

# pyHanko imports cryptography's DSA key type to recognise such keys; cryptography 51 answers that
# import with a deprecation notice, which reached the user's terminal on every signed report and
# every check of one ("day60 score --sign" printed two lines about DSA, an algorithm day60 never
# uses). It is a note to pyHanko's developers, not to ours or to a user: only it is silenced, only
# where pyHanko's own modules raise it.
warnings.filterwarnings("ignore", message="DSA is deprecated", module=r"pyhanko(\.|$)")
