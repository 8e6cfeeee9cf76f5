"""Evidence rows are immutable: a trigger refuses any UPDATE, whatever path (API, admin, SQL) tries it."""

from django.db import migrations

FORWARD = """
CREATE FUNCTION memhq_evidence_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'memhq_evidence rows are immutable';
END;
$$;
CREATE TRIGGER memhq_evidence_no_update BEFORE UPDATE ON memhq_evidence
    FOR EACH ROW EXECUTE FUNCTION memhq_evidence_immutable();
"""

BACKWARD = """
DROP TRIGGER IF EXISTS memhq_evidence_no_update ON memhq_evidence;
DROP FUNCTION IF EXISTS memhq_evidence_immutable();
"""


class Migration(migrations.Migration):
    dependencies = [("memhq", "0001_initial")]

    operations = [migrations.RunSQL(FORWARD, BACKWARD)]
