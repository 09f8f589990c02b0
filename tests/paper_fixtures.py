"""A minimal PDF built by hand (pypdf reads PDFs, it does not lay out text): one page of
text lines in Helvetica, and optionally a link annotation whose target is not shown."""

from __future__ import annotations

from pathlib import Path


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def make_pdf(path: Path, lines: list[str], link: str | None = None) -> Path:
    """Write a one-page PDF showing ``lines``; ``link`` becomes a URI link annotation."""
    stream = "BT /F1 11 Tf 72 720 Td 14 TL\n"
    stream += "".join(f"({_escape(line)}) '\n" for line in lines) + "ET"
    annots = " /Annots [6 0 R]" if link else ""
    objects = [
        "<< /Type /Catalog /Pages 2 0 R >>",
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R"
        f" /Resources << /Font << /F1 5 0 R >> >>{annots} >>",
        f"<< /Length {len(stream.encode('latin-1'))} >>\nstream\n{stream}\nendstream",
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    if link:
        objects.append(
            "<< /Type /Annot /Subtype /Link /Rect [72 600 300 620]"
            f" /A << /S /URI /URI ({_escape(link)}) >> >>"
        )
    out = b"%PDF-1.4\n"
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n{body}\nendobj\n".encode("latin-1")
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += "".join(f"{offset:010d} 00000 n \n" for offset in offsets).encode()
    out += (
        f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n"
    ).encode()
    path.write_bytes(out)
    return path
