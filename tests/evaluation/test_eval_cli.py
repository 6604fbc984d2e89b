"""``neardup eval`` end to end on tiny JSONL files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from neardup.ingest.cli import main

ARTICLE = "".join(
    f"第{i}段：新华社北京一月一日电，今天是新年的第一天，首都各界群众在人民大会堂欢聚一堂，"
    f"共同迎接一九九八年的到来，会上宣读了第{i}项决定。\n"
    for i in range(8)
)
OTHER = "".join(
    f"Paragraph {i}: the quick brown fox jumps over the lazy dog near the river bank, while "
    f"the farmer counts sheep number {i} and writes the result into a small notebook.\n"
    for i in range(8)
)
NAV = "首页 新闻 国际 财经 体育 娱乐 科技 教育 健康 汽车 房产 旅游 文化 军事\n"
FOOT = "\n关于我们 | 联系我们 | 广告服务 | 网站地图 | 版权所有 © 1998-2008 示例网 京ICP证12345号"


def _pairs_file(path: Path) -> Path:
    lines = [
        {
            "id": "p1",
            "a": {"text": NAV + ARTICLE + FOOT},
            "b": {"text": ARTICLE},
            "label": 1,
            "kind": "template",
        },
        {
            "id": "p2",
            "a": {"html": f"<p>{OTHER}</p>"},
            "b": {"text": OTHER + "Extra line."},
            "label": 1,
            "kind": "para-edit",
        },
        {"id": "n1", "a": {"text": ARTICLE}, "b": {"text": OTHER}, "label": 0, "kind": "unrelated"},
        {
            "id": "n2",
            "a": {"text": NAV + ARTICLE[:40] + FOOT},
            "b": {"text": NAV + OTHER[:60] + FOOT},
            "label": 0,
            "kind": "same-template",
        },
    ]
    text = "\n".join(json.dumps(x, ensure_ascii=False) for x in lines)
    bad = '\n{"a": {"text": "x"}, "b": {"text": "y"}, "label": 7}\nnot json at all\n{"b": 1}\n'
    path.write_text(text + bad, encoding="utf-8")
    return path


def test_pairs_end_to_end(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = _pairs_file(tmp_path / "pairs.jsonl")
    out_json = tmp_path / "report.json"
    code = main(
        [
            "eval",
            "--dataset",
            str(data),
            "--methods",
            "lcs,simhash",
            "--no-progress",
            "--json",
            str(out_json),
        ]
    )
    captured = capsys.readouterr()
    assert code == 0
    table = captured.out.splitlines()
    assert table[0].startswith("dataset pairs.jsonl: mode pairs, profile web, 4 pairs, 2 positive")
    assert table[1].split()[:4] == ["method", "P", "R", "F1"]
    assert table[3].split()[0] == "lcs" and table[4].split()[0] == "simhash"
    # each bad line reported on its own
    assert "line 5: 'label' must be 0 or 1" in captured.err
    assert "line 6: invalid JSON" in captured.err
    assert "line 7:" in captured.err
    report = json.loads(out_json.read_text())
    assert [r["method"] for r in report["results"]] == ["lcs", "simhash"]
    lcs = report["results"][0]
    assert lcs["tp"] + lcs["fn"] == 2 and lcs["fp"] + lcs["tn"] == 2
    assert len(report["errors"]) == 3
    assert lcs["tp"] == 2 and lcs["fp"] == 0  # the method itself on obvious cases


def test_corpus_end_to_end(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    docs = [
        {"id": "a1", "text": NAV + ARTICLE + FOOT, "group": "A"},
        {"id": "a2", "text": ARTICLE, "group": "A"},
        {"id": "b1", "text": OTHER, "group": "B"},
        {"id": "b2", "text": OTHER + "\nOne more closing sentence for the record.", "group": "B"},
        {
            "id": "c1",
            "text": NAV + "完全不同的一篇短文，讲述了另外一件事情的来龙去脉和前因后果。" * 3 + FOOT,
            "group": "C",
        },
    ]
    path = tmp_path / "corpus.jsonl"
    path.write_text("\n".join(json.dumps(d, ensure_ascii=False) for d in docs) + '\n{"id": 9}\n')
    code = main(["eval", "--dataset", str(path), "--methods", "lcs,minhash-lsh", "--no-progress"])
    out = capsys.readouterr()
    assert code == 0
    assert "mode corpus" in out.out and "coverage" in out.out and "cand/doc" in out.out
    assert "line 6:" in out.err


def test_usage_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", "--dataset", str(tmp_path / "missing.jsonl")]) == 2
    data = _pairs_file(tmp_path / "pairs.jsonl")
    assert main(["eval", "--dataset", str(data), "--methods", "nosuchmethod"]) == 2
    assert main(["eval", "--dataset", str(data), "--set", "theta=7"]) == 2
    assert main(["eval", "--dataset", str(data), "--mode", "corpus"]) == 2
    assert main(["eval", "--make-dataset", "pawsx"]) == 2  # needs -o
    with pytest.raises(SystemExit) as exc:
        main(["eval"])
    assert exc.value.code == 2
    capsys.readouterr()


#: PAWS-X-style pairs, hand-written: paraphrases (1), word swaps that change the meaning (0)
PAWSX_ROWS = [
    ("1", "他在北京住了十年，后来搬到了上海。", "他在北京生活了十年，之后搬去了上海。", "1"),
    ("2", "小王把书借给了小李。", "小李把书借给了小王。", "0"),
    ("3", "这座桥建于一九五八年，全长三百米。", "全长三百米的这座桥建于一九五八年。", "1"),
    ("4", "球队在主场以二比一战胜了对手。", "对手在主场以二比一战胜了球队。", "0"),
    ("5", "会议由市长主持，讨论了交通问题。", "市长主持了会议，会上讨论了交通问题。", "1"),
    ("6", "老师先到了学校，学生随后才到。", "学生先到了学校，老师随后才到。", "0"),
    ("7", "这家工厂每年生产五万台冰箱。", "这家工厂的冰箱年产量为五万台。", "1"),
    ("8", "河的东岸是农田，西岸是村庄。", "河的西岸是农田，东岸是村庄。", "0"),
]


def test_make_dataset_roundtrip(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    data = tmp_path / "data"
    (data / "pawsx_zh").mkdir(parents=True)
    rows = ["id\tsentence1\tsentence2\tlabel", *("\t".join(r) for r in PAWSX_ROWS)]
    (data / "pawsx_zh" / "dev_2k.tsv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    monkeypatch.setenv("NEARDUP_SHARED_DATA", str(data))
    out = tmp_path / "paws.jsonl"
    assert main(["eval", "--make-dataset", "pawsx", "--size", "6", "-o", str(out)]) == 0
    lines = [json.loads(x) for x in out.read_text(encoding="utf-8").splitlines()]
    assert len(lines) == 6 and all(x["label"] in (0, 1) for x in lines)
    code = main(
        [
            "eval",
            "--dataset",
            str(out),
            "--methods",
            "lcs,simhash",
            "--profile",
            "short",
            "--no-progress",
            "--no-kinds",
        ]
    )
    assert code == 0
    assert "profile short, 6 pairs" in capsys.readouterr().out
