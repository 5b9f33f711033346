"""Publications, their links to fruits (with a PDF each) and their images of linked fruits."""

import django.core.validators
import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ('catalog', '0008_curators_group'),
    ]

    operations = [
        migrations.CreateModel(
            name='Publication',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('title', models.CharField(max_length=300)),
                ('authors', models.TextField(blank=True, default='')),
                ('year', models.IntegerField(blank=True, help_text='Year of publication, 1400 to 2100; empty when unknown.', null=True, validators=[django.core.validators.MinValueValidator(1400), django.core.validators.MaxValueValidator(2100)])),
                ('description', models.TextField(blank=True, default='')),
                ('cover_data', models.BinaryField(blank=True, null=True)),
                ('cover_content_type', models.CharField(blank=True, default='', editable=False, max_length=100)),
                ('cover_size', models.PositiveBigIntegerField(default=0, editable=False)),
                ('cover_sha256', models.CharField(blank=True, default='', editable=False, max_length=64)),
                ('search_text', models.TextField(blank=True, default='', editable=False)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('updated_at', models.DateTimeField(auto_now=True)),
            ],
            options={
                'ordering': [models.OrderBy(models.F('year'), descending=True, nulls_last=True), 'title', 'pk'],
                'constraints': [models.CheckConstraint(condition=models.Q(('title', ''), _negated=True), name='publication_title_not_empty'), models.CheckConstraint(condition=models.Q(('year__isnull', True), models.Q(('year__gte', 1400), ('year__lte', 2100)), _connector='OR'), name='publication_year_in_range')],
            },
        ),
        migrations.CreateModel(
            name='PublicationFruit',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('description_data', models.BinaryField(blank=True, null=True)),
                ('description_size', models.PositiveBigIntegerField(default=0, editable=False)),
                ('description_sha256', models.CharField(blank=True, default='', editable=False, max_length=64)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('fruit', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='publication_links', to='catalog.fruit')),
                ('publication', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='links', to='publications.publication')),
            ],
            options={
                'verbose_name': 'publication fruit',
                'verbose_name_plural': 'publication fruits',
            },
        ),
        migrations.CreateModel(
            name='PublicationFruitImage',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('data', models.BinaryField()),
                ('content_type', models.CharField(blank=True, default='', max_length=100)),
                ('size', models.PositiveBigIntegerField(default=0)),
                ('width', models.PositiveIntegerField(default=0)),
                ('height', models.PositiveIntegerField(default=0)),
                ('sha256', models.CharField(blank=True, default='', max_length=64)),
                ('thumbnail_data', models.BinaryField(blank=True, null=True)),
                ('thumbnail_sha256', models.CharField(blank=True, default='', max_length=64)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('link', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='images', to='publications.publicationfruit')),
            ],
            options={
                'verbose_name': 'publication fruit image',
                'verbose_name_plural': 'publication fruit images',
                'ordering': ['pk'],
            },
        ),
        migrations.AddConstraint(
            model_name='publicationfruit',
            constraint=models.UniqueConstraint(fields=('publication', 'fruit'), name='publicationfruit_unique_fruit'),
        ),
    ]
