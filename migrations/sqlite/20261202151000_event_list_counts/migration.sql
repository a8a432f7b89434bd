-- The exact count of the listed events (not hidden from listings, not a series' excluded first event)
-- by status and by the days of their local start and end: a list's total whose conditions are whole
-- days and statuses (the default window, say) is a sum over a few hundred of these rows instead of a
-- count of every matching index entry (`src/services/list-counts.ts`). The triggers below keep it
-- exact whatever writes the events (Prisma, raw SQL, imports), so no writer knows of it. SQLite runs
-- one write transaction at a time: each bucket is one row, updated in place. The schema engine leaves
-- the table alone (`schemaFilter`, src/db/schema-engine.ts).
CREATE TABLE "EventListCount" (
    "status" TEXT NOT NULL,
    "startDay" TEXT NOT NULL,
    "endDay" TEXT NOT NULL,
    "count" INTEGER NOT NULL,
    PRIMARY KEY ("status", "startDay", "endDay")
) WITHOUT ROWID;

INSERT INTO "EventListCount" ("status", "startDay", "endDay", "count")
SELECT "status", substr("localStart", 1, 10), substr("localEnd", 1, 10), count(*)
FROM "Event"
WHERE NOT "hideFromListings" AND NOT "startExcluded"
GROUP BY 1, 2, 3;

CREATE TRIGGER "Event_list_count_insert" AFTER INSERT ON "Event"
WHEN NOT new."hideFromListings" AND NOT new."startExcluded" BEGIN
    INSERT INTO "EventListCount" ("status", "startDay", "endDay", "count")
    VALUES (new."status", substr(new."localStart", 1, 10), substr(new."localEnd", 1, 10), 1)
    ON CONFLICT ("status", "startDay", "endDay") DO UPDATE SET "count" = "count" + 1;
END;

CREATE TRIGGER "Event_list_count_delete" AFTER DELETE ON "Event"
WHEN NOT old."hideFromListings" AND NOT old."startExcluded" BEGIN
    UPDATE "EventListCount" SET "count" = "count" - 1
    WHERE "status" = old."status" AND "startDay" = substr(old."localStart", 1, 10)
        AND "endDay" = substr(old."localEnd", 1, 10);
    DELETE FROM "EventListCount"
    WHERE "status" = old."status" AND "startDay" = substr(old."localStart", 1, 10)
        AND "endDay" = substr(old."localEnd", 1, 10) AND "count" = 0;
END;

-- Only a write that moves an event between buckets (or in or out of the listed ones) touches them.
CREATE TRIGGER "Event_list_count_update"
AFTER UPDATE OF "status", "localStart", "localEnd", "hideFromListings", "startExcluded" ON "Event"
WHEN old."status" IS NOT new."status"
    OR substr(old."localStart", 1, 10) IS NOT substr(new."localStart", 1, 10)
    OR substr(old."localEnd", 1, 10) IS NOT substr(new."localEnd", 1, 10)
    OR old."hideFromListings" IS NOT new."hideFromListings"
    OR old."startExcluded" IS NOT new."startExcluded" BEGIN
    UPDATE "EventListCount" SET "count" = "count" - 1
    WHERE "status" = old."status" AND "startDay" = substr(old."localStart", 1, 10)
        AND "endDay" = substr(old."localEnd", 1, 10)
        AND NOT old."hideFromListings" AND NOT old."startExcluded";
    DELETE FROM "EventListCount"
    WHERE "status" = old."status" AND "startDay" = substr(old."localStart", 1, 10)
        AND "endDay" = substr(old."localEnd", 1, 10) AND "count" = 0;
    INSERT INTO "EventListCount" ("status", "startDay", "endDay", "count")
    SELECT new."status", substr(new."localStart", 1, 10), substr(new."localEnd", 1, 10), 1
    WHERE NOT new."hideFromListings" AND NOT new."startExcluded"
    ON CONFLICT ("status", "startDay", "endDay") DO UPDATE SET "count" = "count" + 1;
END;
