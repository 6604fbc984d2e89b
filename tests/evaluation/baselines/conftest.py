"""Small hand-written corpora for the baseline tests (no network, no shared data)."""

from __future__ import annotations

import pytest

ENGLISH = [
    "The river flows through the old town and the bridge is the oldest part of it. In the "
    "spring the water is high, and the people of the town walk along the bank to see it.",
    "A good recipe for bread needs flour, water, salt and yeast. The dough is left to rise "
    "for an hour, and then it is baked in a hot oven until the crust is brown.",
    "The committee met on Monday to discuss the budget for the next year. It was agreed that "
    "the money for the library would be increased, and the report was sent to the council.",
    "In the mountains the weather changes quickly. A clear morning can turn into a storm by "
    "noon, so the climbers carry warm clothes and a map of the trails.",
    "The museum opened a new exhibition of paintings from the last century. It shows how the "
    "artists of the city saw the harbour, the market and the streets in the evening light.",
    "A small company in the north of the country builds electric bicycles. The frames are "
    "made of aluminium and the batteries are charged from the solar panels on the roof.",
]

CHINESE = [
    "新华社北京一月一日电 国家主席在新年贺词中说，我们要继续推进改革开放，发展社会主义市场经济。",
    "今年的粮食生产获得了丰收，农民的收入有了明显的提高，农村的面貌发生了很大的变化。",
    "这个城市的交通建设正在加快，新的地铁线路将在年底开通，方便了市民的出行。",
    "学校的老师和学生一起参加了植树活动，他们在山坡上种下了一千多棵树苗。",
]


@pytest.fixture
def english() -> list[str]:
    return list(ENGLISH)


@pytest.fixture
def corpus() -> list[str]:
    return ENGLISH + CHINESE


@pytest.fixture
def long_text() -> str:
    """About 200 words of English prose (the six paragraphs joined)."""
    return " ".join(ENGLISH)
