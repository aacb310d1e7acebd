"""A throwaway public-key infrastructure made in the test, and a timestamp authority the tests
start themselves on 127.0.0.1 (pyHanko's own DummyTimeStamper signs the tokens). Nothing here
touches the network beyond this machine's loopback.

The TSA answers at one path per behaviour: /good, /wrong-hash (a token over another hash),
/expired (a TSA certificate whose validity ended before its tokens), /other-ca (a TSA under a CA
the tests do not trust), /not-a-reply (an HTML page), /refuse (a refusal status) and /skew/SECONDS
(a good TSA whose clock is SECONDS ahead of this machine's, or behind it when negative).
"""

import datetime as dt
import threading
import typing
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from asn1crypto import keys as asn1_keys
from asn1crypto import tsp
from asn1crypto import x509 as asn1_x509
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.hazmat.primitives.serialization import pkcs12
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID
from pyhanko.sign.timestamps import DummyTimeStamper


def _key():
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


def certificate(name, key, issuer=None, issuer_key=None, ca=False, eku=None, valid=(-1, 30)):
    """A certificate for ``key``, self-signed unless an issuer is given; ``valid`` in days from now."""
    now = dt.datetime.now(dt.UTC)
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    builder = (x509.CertificateBuilder().subject_name(subject).issuer_name(issuer.subject if issuer else subject)
               .public_key(key.public_key()).serial_number(x509.random_serial_number())
               .not_valid_before(now + dt.timedelta(days=valid[0])).not_valid_after(now + dt.timedelta(days=valid[1]))
               .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
               .add_extension(x509.KeyUsage(digital_signature=not ca, content_commitment=not ca,
                                            key_encipherment=False, data_encipherment=False, key_agreement=False,
                                            key_cert_sign=ca, crl_sign=ca, encipher_only=False,
                                            decipher_only=False), critical=True))
    if eku:
        builder = builder.add_extension(x509.ExtendedKeyUsage(eku), critical=True)
    return builder.sign(issuer_key or key, hashes.SHA256())


def asn1_cert(cert):
    return asn1_x509.Certificate.load(cert.public_bytes(serialization.Encoding.DER))


def asn1_key(key):
    return asn1_keys.PrivateKeyInfo.load(key.private_bytes(serialization.Encoding.DER,
                                                           serialization.PrivateFormat.PKCS8,
                                                           serialization.NoEncryption()))


def p12(path: Path, name: str, passphrase: bytes, with_key: bool = True, key=None) -> x509.Certificate:
    """A signer's key (``key``, else a new one) and self-signed certificate as a PKCS#12 file
    (optionally without the key)."""
    key = key or _key()
    cert = certificate(name, key)
    body = pkcs12.serialize_key_and_certificates(b"signer", key if with_key else None, cert, None,
                                                 serialization.BestAvailableEncryption(passphrase))
    path.write_bytes(body)
    return cert


@dataclass
class Pki:
    root: x509.Certificate
    root_pem: Path
    other_root_pem: Path
    stampers: dict


def make_pki(folder: Path) -> Pki:
    ca_key, other_key = _key(), _key()
    ca = certificate("Test Root CA", ca_key, ca=True, valid=(-400, 400))
    other = certificate("Some Other CA", other_key, ca=True, valid=(-400, 400))
    tsa_key = _key()
    stamp = [ExtendedKeyUsageOID.TIME_STAMPING]
    good = certificate("Test TSA", tsa_key, ca, ca_key, eku=stamp)
    expired = certificate("Expired TSA", tsa_key, ca, ca_key, eku=stamp, valid=(-60, -30))
    elsewhere = certificate("Untrusted TSA", tsa_key, other, other_key, eku=stamp)
    root_pem, other_pem = folder / "root.pem", folder / "other-root.pem"
    root_pem.write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    other_pem.write_bytes(other.public_bytes(serialization.Encoding.PEM))

    def stamper(cert, issuer):
        return DummyTimeStamper(tsa_cert=asn1_cert(cert), tsa_key=asn1_key(tsa_key), certs_to_embed=[asn1_cert(issuer)])

    return Pki(ca, root_pem, other_pem, {"good": stamper(good, ca), "wrong-hash": stamper(good, ca),
                                          "expired": stamper(expired, ca), "other-ca": stamper(elsewhere, other)})


class _Handler(BaseHTTPRequestHandler):
    pki: Pki = None
    requests: typing.ClassVar[list] = []

    def log_message(self, *args):  # quiet
        pass

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        mode = self.path.strip("/")
        type(self).requests.append(mode)
        if mode == "not-a-reply":
            return self._send(b"<html>hello</html>", "text/html")
        req = tsp.TimeStampReq.load(body)
        if mode == "refuse":
            status = tsp.PKIStatusInfo({"status": tsp.PKIStatus("rejection")}).dump()
            return self._send(b"\x30" + bytes([len(status)]) + status, "application/timestamp-reply")
        if mode == "wrong-hash":
            req = tsp.TimeStampReq({"version": 1, "message_imprint": tsp.MessageImprint({
                "hash_algorithm": req["message_imprint"]["hash_algorithm"], "hashed_message": b"\x00" * 32}),
                "nonce": req["nonce"], "cert_req": True})
        stamper = self.pki.stampers.get(mode)
        if mode.startswith("skew/"):  # a TSA whose clock is off by the seconds its path names
            good = self.pki.stampers["good"]
            stamper = DummyTimeStamper(tsa_cert=good.tsa_cert, tsa_key=good.tsa_key,
                                       certs_to_embed=good.certs_to_embed,
                                       fixed_dt=dt.datetime.now(dt.UTC) + dt.timedelta(seconds=float(mode[5:])))
        if stamper is None:
            self.send_error(404)
            return None
        return self._send(stamper.request_tsa_response(req).dump(), "application/timestamp-reply")

    def _send(self, body, kind):
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def serve(pki: Pki):
    """Start the TSA on 127.0.0.1 (a free port); returns (base URL, stop function, requests seen)."""
    handler = type("Handler", (_Handler,), {"pki": pki, "requests": []})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()

    def stop():
        server.shutdown()
        server.server_close()

    return f"http://127.0.0.1:{server.server_address[1]}", stop, handler.requests
