"""From one tile set to a hand: the layout into concealed row, melds, flowers and winning tile, and a winning
hand's unsure tile."""
