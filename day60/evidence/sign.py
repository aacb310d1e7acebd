"""Signing a report with the user's own certificate (pyHanko), and checking a signature.

The passphrase never travels on the command line: it comes from the DAY60_SIGN_PASSPHRASE
environment variable or a hidden prompt. Signing is an incremental update, so the embedded
inputs stay exactly as they were and verify-report reads them as before.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from day60.errors import InputError

PASSPHRASE_VARIABLE = "DAY60_SIGN_PASSPHRASE"


def sign(pdf_bytes: bytes, p12: str | Path, passphrase: bytes) -> bytes:
    """The PDF signed with the key and certificate in a PKCS#12 file."""
    from pyhanko.pdf_utils.incremental_writer import IncrementalPdfFileWriter
    from pyhanko.sign import signers

    from day60.files import read_bytes

    read_bytes(p12, "--sign", "a PKCS#12 (.p12) file holding your key and certificate")
    try:
        signer = signers.SimpleSigner.load_pkcs12(str(p12), passphrase=passphrase)
    except (ValueError, OSError) as exc:
        raise InputError("--sign", f"{p12} could not be opened ({str(exc)[:80]})",
                         f"check the file and the passphrase in {PASSPHRASE_VARIABLE}") from exc
    if signer is None:
        raise InputError("--sign", f"{p12} could not be opened", f"check the passphrase in {PASSPHRASE_VARIABLE}")
    out = io.BytesIO()
    signers.sign_pdf(IncrementalPdfFileWriter(io.BytesIO(pdf_bytes)),
                     signers.PdfSignatureMetadata(field_name="day60-report", reason="day60 score report"),
                     signer=signer, output=out)
    return out.getvalue()


def check(path: str | Path) -> list[dict[str, Any]]:
    """Each signature in the file: who signed, whether the signed bytes are intact and cover the
    whole file. Trust in the certificate itself is not judged here: no trust list is configured."""
    from pyhanko.pdf_utils.reader import PdfFileReader
    from pyhanko.sign.validation import validate_pdf_signature
    from pyhanko_certvalidator import ValidationContext

    context = ValidationContext(trust_roots=[], allow_fetching=False)  # offline: nothing is fetched
    out = []
    with open(path, "rb") as fh:
        reader = PdfFileReader(fh, strict=False)
        for sig in reader.embedded_signatures:
            status = validate_pdf_signature(sig, signer_validation_context=context)
            out.append({"signer": status.signing_cert.subject.human_friendly, "intact": bool(status.intact),
                        "valid": bool(status.valid), "covers_whole_file": sig.coverage.name == "ENTIRE_FILE"})
    return out
