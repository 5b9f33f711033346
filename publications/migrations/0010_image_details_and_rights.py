"""Images get their details and rights: alt text, role, creator, source, licence; a duplicate is one indexed probe."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('publications', '0009_citation_pages_plate_name_first_description'),
    ]

    operations = [
        migrations.AddField(
            model_name='publicationfruitimage',
            name='alt_text',
            field=models.CharField(blank=True, default='', help_text='What the image shows, for people who cannot see it.', max_length=300),
        ),
        migrations.AddField(
            model_name='publicationfruitimage',
            name='creator',
            field=models.CharField(blank=True, default='', help_text='Who made the photo or drawing.', max_length=200),
        ),
        migrations.AddField(
            model_name='publicationfruitimage',
            name='license',
            field=models.CharField(blank=True, choices=[('CC0-1.0', 'CC0 1.0'), ('CC-BY-4.0', 'CC BY 4.0'), ('CC-BY-SA-4.0', 'CC BY-SA 4.0'), ('CC-BY-NC-4.0', 'CC BY-NC 4.0'), ('CC-BY-NC-SA-4.0', 'CC BY-NC-SA 4.0'), ('public-domain', 'Public domain'), ('all-rights-reserved', 'All rights reserved')], default='', max_length=32),
        ),
        migrations.AddField(
            model_name='publicationfruitimage',
            name='role',
            field=models.CharField(choices=[('fruit', 'Fruit'), ('section', 'Cut fruit'), ('blossom', 'Blossom'), ('tree', 'Tree'), ('leaf', 'Leaf'), ('plate', 'Printed plate'), ('other', 'Other')], default='fruit', max_length=16),
        ),
        migrations.AddField(
            model_name='publicationfruitimage',
            name='source',
            field=models.CharField(blank=True, default='', help_text='Where it comes from: a book and plate, an archive, a URL.', max_length=500),
        ),
        migrations.AddIndex(
            model_name='publicationfruitimage',
            index=models.Index(fields=['link', 'sha256'], name='publications_image_sha256_idx'),
        ),
        migrations.AddConstraint(
            model_name='publicationfruitimage',
            constraint=models.CheckConstraint(condition=models.Q(('role__in', ['fruit', 'section', 'blossom', 'tree', 'leaf', 'plate', 'other'])), name='publicationfruitimage_role_valid'),
        ),
        migrations.AddConstraint(
            model_name='publicationfruitimage',
            constraint=models.CheckConstraint(condition=models.Q(('license', ''), ('license__in', ['CC0-1.0', 'CC-BY-4.0', 'CC-BY-SA-4.0', 'CC-BY-NC-4.0', 'CC-BY-NC-SA-4.0', 'public-domain', 'all-rights-reserved']), _connector='OR'), name='publicationfruitimage_license_valid'),
        ),
    ]
