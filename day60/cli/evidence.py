"""Evidence a third party can check: verify-report, and stamp (RFC 3161 time over a journal)."""

from __future__ import annotations

from pathlib import Path

import typer

from day60.cli.base import app


@app.command("verify-report")
def verify_report(
    report: Path = typer.Argument(..., help="A PDF written by 'day60 score', 'selfassess', 'clauses export' or "
                                            "'voice drills' with --pdf."),
    tsa_root: list[Path] = typer.Option([], "--tsa-root", metavar="CERT",
                                        help="A root certificate (PEM or DER) you trust for timestamp authorities; "
                                             "repeatable."),
    expect: str = typer.Option(None, "--expect", metavar="SEQ:HASH",
                               help="The journal head handed over with the report (as 'day60 score' or 'day60 "
                                    "verify' printed it); the report's embedded journal must end there."),
    expect_deal: str = typer.Option(None, "--expect-deal", metavar="SHA256",
                                    help="The SHA-256 of the deal file the parties signed (sha256sum DEAL.toml); a "
                                         "score report's embedded deal must be that file."),
) -> None:
    """Check a report against the data it carries: every page re-rendered and compared, the data
    computed again from the embedded inputs, the rubric and the provenance checked against what
    day60 publishes and writes, and every signature and timestamp stated.

    Prints the verified journal head and parties, "verified" and the signature status, or names
    each difference and exits 1.

    Example: day60 verify-report day60-demo/score.pdf --expect 48:f593...(the head handed over)
    """
    from day60.cli.base import given_options
    from day60.evidence import timestamp
    from day60.evidence.verify import verify_report as check

    verdict = check(report, timestamp.load_roots(tsa_root), expect, parse=given_options, expect_deal=expect_deal)
    for line in verdict.statements:
        typer.echo(f"{report}: {line}")
    if verdict.ok and verdict.head is not None:
        typer.echo(f"{report}: journal head {verdict.head['seq']}:{verdict.head['hash']} (the embedded journal, as "
                   "scored" + ("; matches --expect)" if expect else "; compare it with the head handed over, or give "
                                                                     "--expect)"))
    if verdict.ok and verdict.parties:
        typer.echo(f"{report}: parties: {verdict.parties}")
    if verdict.ok and expect_deal is not None:
        typer.echo(f"{report}: deal SHA-256 matches --expect-deal")
    if not verdict.ok:
        for problem in verdict.problems:
            typer.echo(f"{report}: {problem}", err=True)
        typer.echo(f"{report}: NOT verified", err=True)
        raise typer.Exit(1)
    typer.echo(f"{report}: verified: the {verdict.kind} data it carries is what its embedded inputs compute to, "
               "and every page prints exactly what that data renders to")


@app.command()
def stamp(
    journal: Path = typer.Argument(..., help="The exercise journal."),
    tsa: str = typer.Option(..., "--tsa", metavar="URL", help="The RFC 3161 timestamp authority's URL."),
    tsa_root: list[Path] = typer.Option([], "--tsa-root", metavar="CERT",
                                        help="A root certificate you trust for the TSA; the token is refused if "
                                             "its TSA does not chain to one. Repeatable."),
    out: Path = typer.Option(None, "--out", help="Also keep the token in this new file, apart from the journal "
                                                 "(check it later with 'day60 verify --token')."),
    by: str = typer.Option(None, "--by", help="Who asks for the stamp (default: the journal's runner)."),
) -> None:
    """Ask a timestamp authority for a token over the journal's head and append it as an event.

    The token proves that every line up to the head existed, as it is, by the TSA's time.

    Example: day60 stamp ex.jsonl --tsa https://freetsa.org/tsr --out ex-stamp-1.json
    """
    import json

    from day60 import files
    from day60 import journal as jr
    from day60.evidence import timestamp

    timestamp.check_url(tsa)
    files.check_outputs({"--out": out}, [("JOURNAL", journal)], new="keep each token in a new file")
    roots = timestamp.load_roots(tsa_root)
    header = jr.read_header(journal)
    event = timestamp.stamp(journal, tsa, roots=roots, by=by)
    data = event["data"]
    typer.echo(f"seq {event['seq']}: timestamp.token over head {data['covers_seq']}:{data['covers_hash']}, "
               f"by {tsa} at {event['at']}")
    if out is not None:
        from day60.errors import InputError

        try:
            files.write_atomic(out, json.dumps(timestamp.token_file(event, header["hash"]), indent=2,
                                               sort_keys=True) + "\n", "--out", new=True)
        except InputError as exc:  # the token is in the journal already: say so, not "nothing was written"
            raise InputError("--out", f"the token was appended to {journal} as seq {event['seq']}, but {exc.problem}",
                             "the journal holds the token; keep a copy apart by stamping again with --out "
                             "to a folder that takes it") from None
        typer.echo(f"wrote {out}", err=True)
