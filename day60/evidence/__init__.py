"""Evidence: where every output came from, reports that carry their inputs, and checking them."""

import warnings

# cryptography 51 answers pyHanko's import of its DSA key type, and every use of a DSA key, with a
# deprecation notice that reached the user's terminal as a Python warning on every signed report
# and every check of one ("day60 score --sign" printed two lines of it, with source lines). It is
# a note to library developers: here it is silenced where pyHanko or the toolkit's evidence code
# raises it, and a DSA signing key is told in the toolkit's own words instead (sign.load_signer).
warnings.filterwarnings("ignore", message="DSA is deprecated", module=r"(pyhanko|day60\.evidence)(\.|$)")
