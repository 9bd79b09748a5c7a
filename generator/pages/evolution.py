"""The evolution map of the lesson page (## 在演进图上的位置): the eleven generations of inference speed-ups in order,
which one is this lesson, which have a section on this page, and which carry a number from this site's data.

The numbers themselves are prose with figures, written in docs/index.md; the template hands them to
evolution_map() by the key each generation names here."""
import jinja2
from markupsafe import Markup

# (name, the section of this page that introduces it or None, the key of its number or None)
GENERATIONS = (
    ("每一步把整段序列重新喂一遍", None, None),
    ("KV 缓存", None, None),
    ("批处理", None, "batching"),
    ("连续批处理（按迭代调度）", None, None),
    ("PagedAttention", None, None),
    ("投机解码（Leviathan 2022，Chen 2023）", "#summary", "speculation"),
    ("自己打草稿：MTP 与专用草稿器", "#modern", "self_drafting"),
    ("量化", None, "quantization"),
    ("按 TTFT / TPOT / goodput 调度：分块预填充、预填充与解码分离", None, None),
    ("采样：温度 → top-k → top-p → min-p", None, None),
    ("更少的 KV：GQA / MLA / 线性注意力", None, None),
)
HERE = "投机解码（Leviathan 2022，Chen 2023）"  # this lesson's generation


def here_position():
    """This lesson's place on the map, counting from 1."""
    return [name for name, _, _ in GENERATIONS].index(HERE) + 1


def evolution_map(**numbers):
    """The map as an ordered list, each generation with where it is (here, on this page, elsewhere) and its number;
    `numbers` gives the markup of each key GENERATIONS names, no more and no fewer."""
    keys = {key for _, _, key in GENERATIONS if key}
    if set(numbers) != keys:
        raise KeyError(f"evolution_map: expected the numbers {sorted(keys)}, got {sorted(numbers)}")
    items = []
    for name, section, key in GENERATIONS:
        here = name == HERE
        label = (Markup('<a href="{}">{}</a>').format(section, name) if section
                 else Markup('<span class="c13-offsite">{}</span>').format(name))
        # a generation of another lesson is marked by its class alone: the page says once what that means
        where = (Markup('<span class="c13-here-mark">你在这里</span>') if here else
                 Markup('<span class="c13-evo-where">本页有简介</span>') if section else "")
        number = Markup('<span class="c13-evo-number">相关的数字：{}</span>').format(numbers[key]) if key else ""
        items.append(Markup('<li{}><span class="c13-evo-name">{}</span>{}{}</li>').format(
            Markup(' class="c13-here" aria-current="step"') if here else "", label, where, number))
    return Markup('<ol class="c13-evolution">{}</ol>').format(Markup("").join(items))


@jinja2.pass_context
def evolution_map_of_page(context):
    """evolution_map() with the numbers the page captured as `drove_KEY` ([% set drove_batching %]…[% endset %])."""
    keys = sorted({key for _, _, key in GENERATIONS if key})
    missing = [f"drove_{key}" for key in keys if f"drove_{key}" not in context]
    if missing:
        raise KeyError(f"evolution_map: the page sets no {', '.join(missing)}")
    return evolution_map(**{key: context[f"drove_{key}"] for key in keys})
