"""Distributed publish/subscribe on the network model (DESIGN §3.3): 002's worked
examples as scenarios with exact expected deliveries, the RFH2 fingerprint folder, and
the proxy-subscription data model."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from checker.cli import main
from spec import pubsub
from spec.scenario import load_scenario
from spec.system import run_scenario

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"


def run_json(capsys, name: str) -> tuple[int, dict]:
    code = main(["run", str(EXAMPLES / name), "--json"])
    return code, json.loads(capsys.readouterr().out)


# ---------------------------------------------------------------------------------------
# 002 §Wildcards and cluster topics: the Sport cluster, both phases, QMA and QMB
# ---------------------------------------------------------------------------------------
QMA_TABLE = {  # "Publications received on QMA"
    "SPORTS": ["Sports", "Sports/Rugby", "Sports/Rugby/Leeds"],
    "SARSENAL": [],
    "SLEEDS": ["Sports/Rugby/Leeds"],
}
QMB_BEFORE = {"SPORTS": [], "SARSENAL": [], "SLEEDS": []}  # "QMB received no publications"
QMB_AFTER = {  # "Publications received on QMB"
    "SPORTS": ["Sports/Rugby/Leeds"],
    "SARSENAL": [],
    "SLEEDS": ["Sports/Rugby/Leeds"],
    "FARSENAL": ["Sports/Football/Arsenal"],
    "FLEEDS": ["Sports/Rugby/Leeds"],
}


def test_sports_cluster_before_the_cluster_topic_subscriptions(capsys):
    code, data = run_json(capsys, "ps-sports-cluster-before.toml")
    assert code == 0
    assert data["deliveries"] == {"QMA": QMA_TABLE, "QMB": QMB_BEFORE}
    assert data["errors"] == [] and data["unmodelled"] == []


def test_sports_cluster_after_the_cluster_topic_subscriptions(capsys):
    code, data = run_json(capsys, "ps-sports-cluster.toml")
    assert code == 0
    qma_after = dict(QMA_TABLE, FARSENAL=["Sports/Football/Arsenal"], FLEEDS=["Sports/Rugby/Leeds"])
    assert data["deliveries"] == {"QMA": qma_after, "QMB": QMB_AFTER}
    assert data["errors"] == []


def test_sports_cluster_proxy_subscriptions_are_the_cluster_topic_ones():
    # "QMB forwarded proxy subscriptions for Sports/Football/Arsenal and Sports/Rugby/Leeds
    # to QMA"; the wildcard subscriptions resolve to SYSTEM.BASE.TOPIC and send none
    final = run_scenario(load_scenario(EXAMPLES / "ps-sports-cluster.toml")).final
    qma = final.qmgr("QMA").pubsub
    from_qmb = sorted(t for n, v, t in qma.proxies if n == "QMB")
    assert from_qmb == ["Sports/Football/Arsenal", "Sports/Rugby/Leeds"]
    assert all(v == "CL1" for _, v, _ in qma.proxies)


# ---------------------------------------------------------------------------------------
# 002 §Publish/subscribe hierarchies and §How loop detection works
# ---------------------------------------------------------------------------------------
def test_hierarchy_scenario_1(capsys):
    code, data = run_json(capsys, "ps-hierarchy-three.toml")
    assert code == 0
    assert data["deliveries"] == {"QM1": {"SUB1": ["Sport/Soccer"]}, "QM3": {"SUB3": ["Sport/Soccer"]}}


def test_hierarchy_loop_duplicates_and_origin_discards(capsys):
    code, data = run_json(capsys, "ps-hierarchy-loop.toml")
    assert code == 0
    assert data["deliveries"] == {
        "QM1": {"S1": ["Price/Fruit"]},
        "QM2": {"S2": ["Price/Fruit", "Price/Fruit"]},
        "QM3": {"S3": ["Price/Fruit", "Price/Fruit"]},
    }
    assert [(e["qmgr"], e["code"]) for e in data["errors"]] == [("QM1", "LOOP_DETECTED")] * 2


# ---------------------------------------------------------------------------------------
# 002 §Loop detection fingerprint format: the RFH2 <ibm> folder
# ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("fps", [(), ("QMA_1",), ("QMA_1", "QMB_2", "QMC_1")])
def test_rfp_folder_round_trip(fps):
    folder = pubsub.encode_rfp_folder(fps)
    assert pubsub.decode_rfp_folder(folder) == fps
    assert pubsub.parse_rfh2(pubsub.rfh2_bytes(fps)) == fps
    raw = pubsub.rfh2_bytes(fps)
    assert raw[:4] == b"RFH " and len(raw) % 4 == 0


def test_rfp_folder_as_002_prints_it():
    text = " <ibm>\n  <Rfp>uuid1</Rfp>\n  <Rfp>uuid2</Rfp>\n  <Rfp>uuid3</Rfp>\n</ibm>"
    assert pubsub.decode_rfp_folder(text) == ("uuid1", "uuid2", "uuid3")


@pytest.mark.parametrize("bad", ["", "<ibm>", "<ibm><Rfp>x</ibm>", "<ibm><Rfp></Rfp></ibm>", "<mcd></mcd>",
                                 "<ibm>junk</ibm>"])
def test_rfp_folder_refuses_malformed(bad):
    with pytest.raises(ValueError):
        pubsub.decode_rfp_folder(bad)
