"""A request split into the needs it is made of."""

from __future__ import annotations

from metaserver.registry.needs import MAX_NEEDS, file_needs, sub_needs


def test_the_whole_request_comes_first_then_its_clauses() -> None:
    query = (
        "Recommend dishes for a dinner for three people and then tell me which ingredients "
        "I need. Also convert the total price to euros."
    )
    needs = sub_needs(query)
    assert needs[0] == query
    assert "Recommend dishes for a dinner for three people" in needs
    assert "tell me which ingredients I need" in needs
    assert "convert the total price to euros" in needs


def test_short_fragments_and_duplicates_are_dropped() -> None:
    assert sub_needs("plot it. then save") == ["plot it. then save"]
    assert sub_needs("count the words") == ["count the words"]
    assert len(sub_needs(". ".join(f"do task number {i}" for i in range(20)))) == MAX_NEEDS


def test_file_paths_imply_reading_or_writing_a_file() -> None:
    query = (
        "Read the sales under /root/data/sales.xlsx, plot them by month and save it in "
        "/tmp/figs/sale.png; summarise in ./notes/report.md"
    )
    assert file_needs(query) == [
        "read a excel spreadsheet file",
        "write a image file",
        "write a text file in markdown",
    ]
    # Plain words and versions are no files; a web address is no local file, whatever its end.
    assert file_needs("open /dev/null and version 1.2 of a.b in /opt/python3.12") == []
    assert file_needs("see https://example.org/about and https://example.org/a/page.html") == []
    assert sub_needs("Save a summary to /root/out.md")[-1] == "write a text file in markdown"


def test_the_nearer_of_a_writing_and_a_reading_word_decides() -> None:
    assert file_needs("Give me a markdown report on /root/out/site.md") == [
        "write a text file in markdown"
    ]
    assert file_needs("Analyze the stock and summarize it in a PPT in /root/ppt/a.pptx")[0] == (
        "save a powerpoint presentation file"
    )
    # The reading word stands nearer the path than the writing one.
    assert file_needs("Write down line 10 of /root/txt/big.txt") == ["read a text file"]
    assert file_needs("Get line 10 of /root/txt/big.txt") == ["read a text file"]
    # No word either way: a path named is read.
    assert file_needs("What is in /root/data/table.csv?") == ["read a text file in csv"]


def test_a_path_of_an_unknown_kind_is_still_a_file() -> None:
    query = "Convert the references in /root/refs/list.bib and save the code to /root/code/a.ts"
    assert file_needs(query) == ["read a file", "write a file"]


def test_a_document_written_is_saved_created_and_filled() -> None:
    assert file_needs("Write the report to ~/out/report.docx") == [
        "save a word document file",
        "create a new word document",
        "add content to a word document",
    ]
    # Read, or of a kind written at once, a file is one need.
    assert file_needs("Read /root/in/deck.pptx and save notes in /root/out/notes.md") == [
        "read a powerpoint presentation file",
        "write a text file in markdown",
    ]


def test_a_pdf_written_is_made_as_a_document_and_converted() -> None:
    assert file_needs("Generate a PDF report in /root/pdf/trends.pdf") == [
        "convert a document to pdf",
        "create a new document",
        "add content to a document",
    ]
    # Read, a PDF is still a PDF.
    assert file_needs("List the sections of /root/pdf/paper.pdf") == ["read a pdf file"]


def test_a_file_named_without_a_folder_is_a_file_of_a_known_kind() -> None:
    assert file_needs("Write a summary titled weekly_notes.md in the notes folder") == [
        "write a text file in markdown"
    ]
    assert file_needs("Read data.csv, then save chart.png") == [
        "read a text file in csv",
        "write a image file",
    ]
    # Unknown kinds, host names, addresses and mail are no files.
    assert file_needs("Use Node.js on www.example.com, mail me at a@b.md, see x.org/a.md") == []
    # A path's own name is not read twice.
    assert file_needs("Save it in /root/out/report.md") == ["write a text file in markdown"]


def test_a_file_inserted_or_attached_is_read_by_the_tool_that_inserts_it() -> None:
    assert file_needs("Create a Word file and insert logo.png under /root/pictures") == []
    assert file_needs("Attach /root/in/chart.png, then save it in /root/out/a.md") == [
        "write a text file in markdown"
    ]


def test_no_means_is_added_that_the_request_does_not_name() -> None:
    # A calculator for "calculate", a browser for "online": tables of the words of the
    # requests they were written for (ARCHITECTURE.md, decision 34).
    assert sub_needs("Calculate my balance for last month") == [
        "Calculate my balance for last month"
    ]
    assert sub_needs("Find the cheapest laptops online") == ["Find the cheapest laptops online"]


def test_a_one_sentence_request_is_one_need_whatever_its_full_stop() -> None:
    assert sub_needs("Show me the weather in Paris tomorrow.") == [
        "Show me the weather in Paris tomorrow."
    ]
    assert sub_needs("Plot the monthly sales. Then save the chart") == [
        "Plot the monthly sales. Then save the chart",
        "Plot the monthly sales",
        "save the chart",
    ]


def test_the_request_s_own_needs_leave_its_paths_to_the_file_needs() -> None:
    assert sub_needs("Download the air report, saved at /root/csv/air_report.csv") == [
        "Download the air report, saved at",
        "write a text file in csv",
    ]
    # Web addresses and versions stay; a request that is only a path stays one.
    assert sub_needs("Summarise https://example.org/a.html with /opt/python3.12") == [
        "Summarise https://example.org/a.html with /opt/python3.12"
    ]
    assert sub_needs("/root/notes/todo.md") == [
        "/root/notes/todo.md",
        "read a text file in markdown",
    ]
