"""What identification tells the apps above it, without importing them."""

from django.dispatch import Signal

# A characteristic was created or changed (its fields, its states), or is about to be deleted,
# inside the write's transaction. Sent with `sender=Characteristic`; arguments:
# `characteristic`, `created`, `deleted`.
characteristic_written = Signal()

# Fruits' characteristic values were written (set, replaced, or removed with a characteristic
# or with a type it no longer applies to), inside the write's transaction. Sent with
# `sender=FruitCharacteristic`; argument: `fruit_ids`.
fruit_values_written = Signal()
