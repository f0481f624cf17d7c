from transpo import Position


def test_start_position_perft_and_keys():
    p = Position()
    assert p.perft(3) == 8902
    assert p.key == 0x463B96181691FC9C
    p.push("e2e4")
    assert p.key == 0x823C9B50FD114196
