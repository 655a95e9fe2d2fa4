"""How far a model's judgement can be trusted, measured per model (`cairn calibrate`): its judge's
P(yes) over labelled (question, line, value) items, the `proven` and `absent` thresholds chosen
from it and held out by group, stored per model under `CAIRN_HOME/calibration/`.

`load_calibration(model, home)` is what a verifier reads: None for a model never calibrated.
"""

from cairn.tasks.calibration.labelled import SHIPPED, BadLabelledFile, LabelledItem, read_items, set_name
from cairn.tasks.calibration.measure import Measured, judged, measure
from cairn.tasks.calibration.store import Calibration, calibration_path, load_calibration, save_calibration

__all__ = [
    "SHIPPED",
    "BadLabelledFile",
    "Calibration",
    "LabelledItem",
    "Measured",
    "calibration_path",
    "judged",
    "load_calibration",
    "measure",
    "read_items",
    "save_calibration",
    "set_name",
]
