-- AlterTable
ALTER TABLE "Event" ADD COLUMN     "desiredSlug" TEXT,
ALTER COLUMN "slug" DROP NOT NULL;
