"""Relations between varieties: mother, father, parent, sport, seedling, confused with."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('catalog', '0023_exports_change_tracking'),
    ]

    operations = [
        migrations.CreateModel(
            name='FruitRelation',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('kind', models.CharField(choices=[('mother', 'Mother (seed parent)'), ('father', 'Father (pollen parent)'), ('parent', 'Parent (role unknown)'), ('sport_of', 'Sport of'), ('seedling_of', 'Seedling of'), ('confused_with', 'Confused with')], max_length=16)),
                ('name', models.CharField(help_text="Its name (the fruit's own when it is in the catalog).", max_length=200)),
                ('note', models.TextField(blank=True, default='', max_length=500)),
                ('position', models.PositiveIntegerField(default=0)),
                ('fruit', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='relations', to='catalog.fruit')),
                ('other', models.ForeignKey(blank=True, help_text='The related fruit, when it is in the catalog.', null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='related_relations', to='catalog.fruit')),
            ],
            options={
                'ordering': ['position', 'pk'],
                'constraints': [models.CheckConstraint(condition=models.Q(('kind__in', ['mother', 'father', 'parent', 'sport_of', 'seedling_of', 'confused_with'])), name='fruitrelation_kind_valid'), models.CheckConstraint(condition=models.Q(('name', ''), _negated=True), name='fruitrelation_name_not_empty'), models.CheckConstraint(condition=models.Q(('other', models.F('fruit')), _negated=True), name='fruitrelation_not_to_itself')],
            },
        ),
    ]
