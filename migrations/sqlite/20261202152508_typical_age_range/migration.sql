-- Written by hand, as 20261201211924_event_start_excluded: the schema engine would redefine "Event",
-- and dropping it drops the triggers that keep "EventSearch". SQLite adds a NOT NULL column with a
-- constant default in place, at the end, where the schema puts it.

-- AlterTable
ALTER TABLE "Event" ADD COLUMN "typicalAgeRange" TEXT NOT NULL DEFAULT '';
