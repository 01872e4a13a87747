"""The families of the generated corpus (:mod:`policydiff.generate`), one module per
kind of question; :mod:`policydiff.families.base` holds the world they share."""
