"""tricksolver's games, as OpenSpiel Python games; importing this package registers them all."""
from games import le_truc  # noqa: F401  (registers python_le_truc)
from games import two_ten_jack  # noqa: F401  (registers python_two_ten_jack)
from games import truco_paulista  # noqa: F401  (registers python_truco_paulista)
from games import trucomano  # noqa: F401  (registers python_trucomano)
