"""Make ``data/fonts/`` 's CJK font: a subset of Noto Sans CJK SC Bold (SIL OFL 1.1) holding only
the characters the images draw: every character of the message catalogs (so any catalog string
can be drawn), printable ASCII, the suit symbols, a few marks, and the most common characters of
Chinese names.

Run after changing a catalog (needs fonttools, ``pip install fonttools``, and Debian's
``fonts-noto-cjk``)::

    python -m renderers subset-font [/usr/share/fonts/opentype/noto/NotoSansCJK-Bold.ttc]
"""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from pathlib import Path

from .fonts import CHARS_PATH, FONT_PATH
from .i18n import CATALOG_DIR, LANGS

SOURCE = Path("/usr/share/fonts/opentype/noto/NotoSansCJK-Bold.ttc")
SOURCE_INDEX = 2  # in the collection: JP, KR, SC, TC, HK, then the Mono faces
EXTRA = "♠♥♣♦×·…?→↑★●•：（）、。！？「」"
# Common surnames (百家姓, the hundred most frequent) and given-name characters, so that most
# players' names draw in full on the table; anything else is drawn as "?".
NAME_CHARS = (
    "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程"
    "苏魏吕丁任沈姚卢姜崔钟谭陆汪范金石廖贾夏韦付方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝"
    "龚邵万钱严覃武戴莫孔向汤常温康施文牛樊葛邢安齐易乔伍庞颜倪庄聂章鲁岳翟殷詹申欧耿关兰焦俞"
    "左柳甘祝包宁尚符舒阮柯纪梅童凌毕单季裴霍涂成苗谷盛曲翁冉骆蓝路游辛靳管柴蒙鲍华喻祁蒲房滕"
    "屈饶解牟艾尤阳时穆农司卓古吉缪简车项连芦麦褚娄窦戚岑景党宫费卜冷晏席卫米柏宗瞿桂全佟应臧"
    "伟芳娜敏静丽强磊军洋勇艳杰娟涛明超秀英华慧巧美霞平刚兰玉萍红娥玲芬燕彬鹏辉峰建国斌海波琳"
    "晶欣佳雪飞鑫浩宇轩博子涵怡晨天一凯东亮新丹云志宏春生福永德荣贵祥瑞庆喜梦婷倩颖琪璐思雨蕾"
    "嘉俊豪峻毅健坤昊然泽睿哲瀚晓丰小老阿哥姐弟妹兄叔爷奶妈爸儿仔猫狗虎鱼鸟星月山水花草木心乐笑"
)


def glyph_text() -> str:
    """Every character the images may draw, sorted, without controls and emoji."""
    chars = {chr(c) for c in range(0x20, 0x7F)} | set(EXTRA) | set(NAME_CHARS)
    for lang in LANGS:
        data = json.loads((CATALOG_DIR / f"{lang}.json").read_text(encoding="utf-8"))
        for value in data.values():
            chars.update(value)
        for part in sorted(CATALOG_DIR.glob(f"*.{lang}.json")):  # other parts: their image labels
            data = json.loads(part.read_text(encoding="utf-8"))
            chars.update(c for key, value in data.items() if key.startswith("img.") for c in value)
    return "".join(sorted(c for c in chars if c.isprintable() and ord(c) < 0x10000))


def make_subset(source: Path = SOURCE, out: Path = FONT_PATH) -> None:
    text = glyph_text()
    cmd = [
        sys.executable,
        "-m",
        "fontTools.subset",
        str(source),
        f"--font-number={SOURCE_INDEX}",
        f"--text={text}",
        f"--output-file={out}",
        "--layout-features=kern,palt,vert",
        "--no-hinting",
        "--desubroutinize",
        "--name-IDs=*",
        "--name-legacy",
        "--name-languages=*",
        "--notdef-outline",
    ]
    subprocess.run(cmd, check=True)
    # The characters the subset really holds (the catalogs' emoji are not in the font).
    tt_lib = importlib.import_module("fontTools.ttLib")
    cmap = tt_lib.TTFont(str(out)).getBestCmap()
    held = "".join(sorted(chr(c) for c in cmap if chr(c).isprintable()))
    out.with_name(CHARS_PATH.name).write_text(held + "\n", encoding="utf-8")
    print(f"{out}: {out.stat().st_size} bytes, {len(held)} characters")


def main(argv: list[str]) -> None:
    make_subset(Path(argv[0]) if argv else SOURCE)
