"""Reason codes of AI decisions, with an English gloss each. The bot's message catalog turns a
code and its params (``cards`` in notation, ``rollouts``, ``win``) into a sentence."""

from __future__ import annotations

REASONS: dict[str, str] = {
    # any level
    "only_choice": "the only thing this seat may do",
    "random": "a random legal choice (easy level)",
    "search": "chosen by simulating many possible deals of the hidden cards (hard level); "
    "params: cards, rollouts, win (estimated chance the team wins, %)",
    "endgame": "the rest of the game (四户乱缠) solved exactly for each possible deal of the "
    "hidden cards (hard level); params: cards, deals, win (the team's share of deals won, %)",
    "endgame_known": "the rest of the game (四户乱缠) solved exactly: every card left is known "
    "(hard level); params: cards",
    # leading
    "lead_low": "lead the lowest group, keeping strong cards, 2s and jokers for later",
    "lead_threes": "lead the 3s: they go last, all together (憋3)",
    "go_out": "play the last cards and finish (走科)",
    "open_point": "lead a 开点牌 so that it can stand and open (开点)",
    "safe_penultimate": "the last play before the 3s, one nobody is expected to beat (avoids 闷)",
    "keep_winner": "lead a weaker part first, keeping the strongest cards for the last play "
    "before the 3s",
    "keep_threes": "the last play before the 3s, with no safer way to split it",
    "burn_lead": "burning: lead with a joker, as the burn duty requires",
    # answering
    "beat_cheap": "beat the opponent with a whole group, spending no strong cards",
    "stop_opposite_gouji": "beat the 对头's 够级 play so that it does not stand (and open)",
    "regain_lead": "win the lead now, even at a cost (2s, jokers, a broken group): the rest of "
    "the hand can then be led out",
    "stop_runner": "beat an opponent who is close to finishing",
    "smother": "beat an opponent's last play before their 3s, so that they are 闷",
    "break_burn": "beat a burning play (解烧 or 反烧)",
    "pass_teammate": "pass: do not beat a teammate's play",
    "pass_wind": "pass: the top's owner has gone out, and if it stands the lead comes to this "
    "team (接风)",
    "pass_save": "pass: beating would cost too many strong cards",
    "avoid_smother": "pass: beating would be the last play before the 3s and likely beaten (闷)",
    "yield_to_team": "yield (让牌): let a teammate take the trick first",
    # burning
    "burn_feasible": "burn (烧牌): the rest of the hand can meet the burn duty",
    "burn_infeasible": "do not burn: the burn duty could not be met (诈烧); params: leads "
    "(joker-carrying leads the rest of the hand would need), jokers (jokers it would hold)",
    "burn_unsafe": "do not burn: the duty could be met only if too many leads stood unbeaten",
    "no_burn_teammate": "do not burn a teammate's play",
    # deal phase
    "revolt_weak": "declare 革命: no 2s, no jokers and few high cards",
    "keep_playing": "no 革命: the hand has enough high cards to play",
    "yaotou_strong": "choose 要头: enough 够级 plays to make three stand",
    "take_wutou": "choose 无头: opened at once",
    "declare_strong": "declare 宣点: a strong hand, the 对头 should not open",
    "no_declare": "no 宣点",
    "return_low": "return (还贡) the cheapest cards: low ranks, single cards first",
}
