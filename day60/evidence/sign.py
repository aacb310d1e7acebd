"""Signing a report with the user's own certificate (pyHanko), and saying what each signature is.

The passphrase never travels on the command line: it comes from the DAY60_SIGN_PASSPHRASE
environment variable or a hidden prompt. The key is opened before any work (``load_signer``),
so a wrong passphrase or a .p12 file without a key writes nothing, and the signer's subject and
certificate fingerprint go into the report's embedded data before it is signed: a signature
later stripped or replaced shows as such.

Signing is an incremental update, so the toolkit's own revision stays exactly as it was. With a
timestamp authority (``--tsa URL``) the signature carries a signature timestamp (PAdES B-T); with
``--tsa`` alone the report gets a document timestamp.

``inspect`` states every signature and document timestamp in a file: who, the certificate's
SHA-256 fingerprint, whether the signed bytes are intact, what revision it signs and whether
anything was added after it. A signature whose data cannot be read is tampering, not bad input.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from day60.errors import InputError

PASSPHRASE_VARIABLE = "DAY60_SIGN_PASSPHRASE"
FIELD = "day60-report"


@dataclass
class Signer:
    """A key and certificate opened from a PKCS#12 file, ready to sign."""

    hanko: Any  # pyhanko.sign.signers.SimpleSigner
    subject: str
    fingerprint: str  # SHA-256 of the certificate (DER), lowercase hex

    def identity(self) -> dict[str, str]:
        return {"subject": self.subject, "certificate_sha256": self.fingerprint}


def load_signer(p12: str | Path, passphrase: bytes) -> Signer:
    """Open the key and certificate in ``p12``; refuse a wrong passphrase, a file holding no key or
    no certificate, or a key that is not the certificate's (InputError, before any work)."""
    from asn1crypto import keys as asn1_keys
    from asn1crypto import x509 as asn1_x509
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.serialization import pkcs12
    from pyhanko.sign import signers
    from pyhanko_certvalidator.registry import SimpleCertificateStore

    from day60.files import read_bytes

    raw = read_bytes(p12, "--sign", "a PKCS#12 (.p12) file holding your key and certificate")
    fix = f"check the file and the passphrase in {PASSPHRASE_VARIABLE}"
    try:
        key, cert, extra = pkcs12.load_key_and_certificates(raw, passphrase or None)
    except (ValueError, TypeError) as exc:
        problem = "the passphrase is wrong, or it is not a PKCS#12 file" if "password" in str(exc).lower() \
            or "mac" in str(exc).lower() else f"it cannot be read as PKCS#12 ({str(exc)[:80]})"
        raise InputError("--sign", f"{p12} could not be opened: {problem}", fix) from exc
    if key is None:
        raise InputError("--sign", f"{p12} holds no private key", "export the key with its certificate (.p12)")
    import warnings

    from cryptography.hazmat.primitives.asymmetric import dsa

    with warnings.catch_warnings():  # naming DSA's key type is itself answered with its deprecation notice
        warnings.filterwarnings("ignore", message="DSA is deprecated")
        is_dsa = isinstance(key, dsa.DSAPrivateKey)
    if is_dsa:
        from day60.errors import Note

        warnings.warn(Note(f"{p12} holds a DSA key: the report is signed, but DSA is deprecated by the "
                           "cryptography library and a later toolkit may not check it; sign with an RSA or EC key"),
                      stacklevel=2)
    if cert is None:
        raise InputError("--sign", f"{p12} holds no certificate", "export the certificate with its key (.p12)")
    pub = serialization.PublicFormat.SubjectPublicKeyInfo
    if key.public_key().public_bytes(serialization.Encoding.DER, pub) != \
            cert.public_key().public_bytes(serialization.Encoding.DER, pub):
        raise InputError("--sign", f"{p12}: its key is not the key of its certificate", "export a matching pair")
    der = cert.public_bytes(serialization.Encoding.DER)
    certificate = asn1_x509.Certificate.load(der)
    private = asn1_keys.PrivateKeyInfo.load(key.private_bytes(
        serialization.Encoding.DER, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
    registry = SimpleCertificateStore.from_certs(
        [asn1_x509.Certificate.load(c.public_bytes(serialization.Encoding.DER)) for c in extra or []])
    hanko = signers.SimpleSigner(signing_cert=certificate, signing_key=private, cert_registry=registry)
    return Signer(hanko, certificate.subject.human_friendly, certificate.sha256.hex())


def _writer(pdf_bytes: bytes) -> Any:
    """pyHanko's incremental writer, made to leave the document's metadata exactly as the toolkit
    wrote it (pyHanko would restamp its modification date and producer), so that a signature
    revision adds the signature and nothing a reader sees."""
    from pyhanko.pdf_utils.incremental_writer import IncrementalPdfFileWriter

    class KeepMetadata(IncrementalPdfFileWriter):
        def _update_meta(self) -> None:
            return None

    return KeepMetadata(io.BytesIO(pdf_bytes), strict=False)


def sign(pdf_bytes: bytes, signer: Signer, timestamper: Any = None, field: str = FIELD) -> bytes:
    """The PDF signed (an incremental update with an invisible signature field named ``field``);
    with a ``timestamper`` the signature carries a timestamp token over itself (PAdES B-T)."""
    from pyhanko.sign import fields, signers

    from day60.evidence.pdf import quiet

    meta = signers.PdfSignatureMetadata(field_name=field, reason="day60 report", md_algorithm="sha256",
                                        subfilter=fields.SigSeedSubFilter.PADES)
    out = io.BytesIO()
    with quiet():
        signers.PdfSigner(meta, signer=signer.hanko, timestamper=timestamper).sign_pdf(_writer(pdf_bytes), output=out)
    return out.getvalue()


def timestamp_document(pdf_bytes: bytes, timestamper: Any) -> bytes:
    """The PDF with a document timestamp (an RFC 3161 token over every byte before it)."""
    from pyhanko.sign import signers

    from day60.evidence.pdf import quiet

    out = io.BytesIO()
    with quiet():
        signers.PdfTimeStamper(timestamper).timestamp_pdf(_writer(pdf_bytes), "sha256", output=out)
    return out.getvalue()


# ----- what a file's signatures are ---------------------------------------------------------------


@dataclass
class Mark:
    """One signature or document timestamp found in a file."""

    kind: str  # "signature" or "document timestamp"
    field: str
    revision: int
    subject: str | None = None
    fingerprint: str | None = None
    intact: bool = False
    valid: bool = False
    covers: str = ""  # in words
    whole: bool = False  # covers every byte of the file
    timestamp: dict[str, Any] | None = None  # gen_time, TSA subject and fingerprint, trusted
    problems: list[str] = field(default_factory=list)

    def name(self) -> str:
        if not self.subject:
            return f"the {self.kind} in field {self.field!r}"
        return f"the {self.kind} in field {self.field!r} by {self.subject} (certificate SHA-256 {self.fingerprint})"


@dataclass
class Signatures:
    """Every signature in a file, and whether its revisions are all signatures."""

    marks: list[Mark]
    revisions: int
    problems: list[str]


def inspect(raw: bytes, path: str | Path, tsa_roots: list[Any] | None = None) -> Signatures:
    """Every signature and document timestamp in ``raw``: who, intact, what it covers; every
    revision after the toolkit's first must be one of them and the last must cover the file."""
    from pyhanko.pdf_utils.reader import PdfFileReader

    from day60.evidence.pdf import damaged, hanko_limits, quiet

    try:
        with quiet():
            reader = PdfFileReader(io.BytesIO(raw), strict=False, decode_limits=hanko_limits())
            revisions = reader.xrefs.total_revisions
            embedded = list(reader.embedded_signatures)
    except (Exception, RecursionError) as exc:
        raise damaged(path, exc) from None
    marks = [_mark(sig, revisions, tsa_roots) for sig in embedded]
    problems = []
    signed = sorted(m.revision for m in marks if m.revision >= 0)
    unsigned = [r for r in range(1, revisions) if r not in signed]
    if unsigned:
        problems.append(f"the file was changed after the toolkit wrote it: revision(s) "
                        f"{', '.join(str(r + 1) for r in unsigned)} of {revisions} are incremental updates that are "
                        "not signatures")
    last = max(marks, key=lambda m: m.revision, default=None)
    if last is not None and (last.revision != revisions - 1 or not last.whole) and not last.problems:
        problems.append("bytes were added after the last signature")
    for mark in marks:
        problems += [f"{mark.name()}: {p}" for p in mark.problems]
    return Signatures(marks, revisions, problems)


def _mark(sig: Any, revisions: int, tsa_roots: list[Any] | None) -> Mark:
    """One embedded signature checked offline; any fault of its data is named as tampering."""
    from day60.evidence.pdf import quiet

    kind = "document timestamp" if str(sig.sig_object_type) == "/DocTimeStamp" else "signature"
    try:
        field_name = str(sig.field_name)
    except Exception:
        field_name = "unnamed"
    mark = Mark(kind, field_name, -1)
    try:
        with quiet():
            mark.revision = sig.signed_revision
            cert = sig.signer_cert
            mark.subject, mark.fingerprint = cert.subject.human_friendly, cert.sha256.hex()
            validate = _validate_signature if kind == "signature" else _validate_timestamp
            status = validate(sig, tsa_roots)
            mark.intact, mark.valid = bool(status.intact), bool(status.valid)
            coverage = getattr(sig.coverage, "name", "UNCLEAR")
    except Exception as exc:
        mark.problems.append(f"its signature data cannot be checked ({type(exc).__name__}: {str(exc)[:80]}): "
                             "it is corrupted")
        return mark
    later = revisions - 1 - mark.revision
    mark.whole = coverage == "ENTIRE_FILE"
    if mark.whole:
        mark.covers = "every byte of the file"
    elif coverage == "ENTIRE_REVISION":
        mark.covers = f"its own revision ({mark.revision + 1} of {revisions}); {later} revision(s) came after it"
    else:
        mark.covers = "an unclear part of the file"
        mark.problems.append("it does not cover the file up to its own revision")
    if not mark.intact:
        mark.problems.append("the bytes it signs were changed after signing")
    elif not mark.valid:
        mark.problems.append("its cryptographic signature does not verify")
    if kind == "signature":
        mark.timestamp = _signature_time(status)
    else:
        mark.timestamp = _token_time(status)
    if mark.timestamp and mark.timestamp.get("problem"):
        mark.problems.append(mark.timestamp["problem"])
    return mark


def _context(roots: list[Any] | None, moment: Any = None) -> Any:
    from pyhanko_certvalidator import ValidationContext

    kwargs = {"moment": moment} if moment is not None else {}
    return ValidationContext(trust_roots=list(roots or []), allow_fetching=False, revocation_mode="soft-fail",
                             **kwargs)


def _validate_signature(sig: Any, tsa_roots: list[Any] | None) -> Any:
    from pyhanko.sign.validation import validate_pdf_signature

    # The signer's own certificate is not judged against a trust list: it is named by its
    # fingerprint and compared with the one recorded when the report was written.
    return validate_pdf_signature(sig, signer_validation_context=_context([]),
                                  ts_validation_context=_context(tsa_roots))


def _validate_timestamp(sig: Any, tsa_roots: list[Any] | None) -> Any:
    from pyhanko.sign.validation import validate_pdf_timestamp

    return validate_pdf_timestamp(sig, validation_context=_context(tsa_roots))


def _signature_time(status: Any) -> dict[str, Any] | None:
    token = getattr(status, "timestamp_validity", None)
    return _token_time(token) if token is not None else None


def _token_time(token: Any) -> dict[str, Any]:
    cert = token.signing_cert
    out = {"at": token.timestamp.isoformat() if token.timestamp else None,
           "tsa": cert.subject.human_friendly if cert is not None else None,
           "tsa_certificate_sha256": cert.sha256.hex() if cert is not None else None,
           "trusted": bool(token.trusted), "problem": None}
    if not (token.intact and token.valid):
        out["problem"] = "its timestamp token does not verify (its bytes or signature were changed)"
    return out
