-- AlterTable
ALTER TABLE "Event" ADD COLUMN     "eventStatus" TEXT NOT NULL DEFAULT 'scheduled',
ADD COLUMN     "eventStatusReason" TEXT NOT NULL DEFAULT '',
ADD COLUMN     "revision" INTEGER NOT NULL DEFAULT 0;

-- Existing events keep the SEQUENCE their feeds showed until now (seconds from publication to the
-- last modification), so that it never goes back; from here on every update adds one.
UPDATE "Event" SET "revision" = GREATEST(0, FLOOR(EXTRACT(EPOCH FROM ("modifiedAt" - "publishedAt"))))::INTEGER;
