"""A fruit link becomes a citation: pages, plate, the name in the source, first description."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('publications', '0008_refill_search_text_with_spellings'),
    ]

    operations = [
        migrations.AddField(
            model_name='publicationfruit',
            name='is_first_description',
            field=models.BooleanField(default=False, help_text="This publication is the variety's first description."),
        ),
        migrations.AddField(
            model_name='publicationfruit',
            name='name_in_source',
            field=models.CharField(blank=True, default='', help_text='The name under which the publication describes the fruit, if another.', max_length=200),
        ),
        migrations.AddField(
            model_name='publicationfruit',
            name='pages',
            field=models.CharField(blank=True, default='', help_text='E.g. "112-114".', max_length=50),
        ),
        migrations.AddField(
            model_name='publicationfruit',
            name='plate',
            field=models.CharField(blank=True, default='', help_text='Plate (Tafel) number.', max_length=50),
        ),
    ]
